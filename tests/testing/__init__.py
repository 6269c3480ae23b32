"""Tests of kubenb.testing; the sessions they run with pytester take these options."""

#: The plugin loaded explicitly (as without the entry point), no cache files in the test
#: project, and pytest-benchmark (where installed) kept out as the suite keeps it out.
INNER_ARGS = ("-p", "kubenb.testing.plugin", "-p", "no:cacheprovider", "-p", "no:benchmark")
