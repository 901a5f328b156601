"""pytest-sprout's command-line and ini options: `options` registers them and reads them from a pytest
config, turning a value error from `core.option_values` into pytest's usage error with the same message.
The lowest folder that touches pytest."""
