"""The toy paper: a fourth paper kept outside the package (noneuclid/extensions.py), built by a test."""
