"""The demo: its stores built (in a language), recognised, and their owner."""

# core.demo
from core.demo import OWNER, build_demo, demo_language, is_demo

__all__ = ["OWNER", "build_demo", "demo_language", "is_demo"]
