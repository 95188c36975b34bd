"""share layer."""
