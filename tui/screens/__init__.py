"""The desk's screens: one module per screen."""
