// Test-only payload encoders.
