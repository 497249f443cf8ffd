"""Registry specs (placeholder until filled)."""
from __future__ import annotations
