"""Evaluate a run on Spark with rankwise — local mode by default, a cluster with spark-submit.

    python examples/spark_job.py                                   # bundled sample data, local[2]
    spark-submit --master yarn --conf spark.sql.shuffle.partitions=400 \\
        examples/spark_job.py s3://bucket/run/ s3://bucket/qrels/ s3://bucket/metrics/

The run and qrels are read as Parquet (folders or files), repartitioned by query so every
query's rows are evaluated on one executor, evaluated with the same SQL definitions as the
DuckDB engine (inlined into Spark SQL), and the per-query values are written as Parquet
(or shown, with the summary, when no output path is given). Nothing is collected to the
driver but the summary row.
"""

from __future__ import annotations

import sys
from pathlib import Path

from pyspark.sql import SparkSession

from rankwise import spark as rws

METRICS = ["nDCG@10", "AP", "RR", "P@10", "R@100", "Bpref", "GMAP", "NumQ"]


def main(argv: list[str]) -> None:
    data = Path(__file__).resolve().parent / "data"
    run_path = argv[0] if argv else str(data / "run.parquet")
    qrels_path = argv[1] if len(argv) > 1 else str(data / "qrels.parquet")
    out_path = argv[2] if len(argv) > 2 else None
    builder = SparkSession.builder.appName("rankwise")
    if not argv:  # the sample data: local mode; with paths, spark-submit's --master decides
        builder = builder.master("local[2]")
    spark = builder.getOrCreate()
    run = spark.read.parquet(run_path).repartition("query_id")
    qrels = spark.read.parquet(qrels_path)
    per_query = rws.evaluate(qrels, run, METRICS)
    if out_path:
        per_query.write.mode("overwrite").parquet(out_path)
    else:
        per_query.show(5)
    print(rws.summarize(per_query).toPandas().T.to_string(header=False))
    spark.stop()


if __name__ == "__main__":
    main(sys.argv[1:])
