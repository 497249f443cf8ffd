"""Test-wide settings: every graph that is staged or optimized is type-checked."""
import fungrad as fg

fg.config.update("check_graphs", True)
