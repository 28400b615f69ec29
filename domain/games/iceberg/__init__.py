"""Iceberg (Kenneth Leyhe Sr., 2002) as ``shared/rules/iceberg.md`` specifies it."""

from domain.games.iceberg.rules import ICEBERG, IcebergRules

__all__ = ["ICEBERG", "IcebergRules"]
