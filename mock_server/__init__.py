"""mock_server package."""
