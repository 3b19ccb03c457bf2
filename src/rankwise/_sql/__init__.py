"""SQL shared by every SQL engine (DuckDB, to_sql, Spark): the macro files of ``sql/`` and the
compiler that turns recipes into one statement of macro calls."""
