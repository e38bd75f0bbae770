"""reference_impl package."""
