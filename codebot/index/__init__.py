"""index layer."""
