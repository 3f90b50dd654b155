"""Measures: a store's health (its counts against their limits), and the labelled
measures (the samples a person labels in the desk, and what each diagnosis means)."""

# core.reports
from core.reports.metrics import Health, health

# core.review
from core.review.labels import DIAGNOSES, MEASURES, workspace_label_items

__all__ = ["DIAGNOSES", "MEASURES", "Health", "health", "workspace_label_items"]
