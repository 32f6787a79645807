"""Test helpers shipped with the package, for this project's tests and for anyone's backend."""
