"""The test suite (a regular package, so a stray `tests` in site-packages cannot shadow it)."""
