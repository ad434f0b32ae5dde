"""Run a puzzlebench batch command on Apache Spark.

    spark-submit scripts/spark/puzzlebench_spark.py \
        --binary target/release/puzzlebench --output OUT INPUT... -- sudoku solve --timeout 1s

or, for several jobs in one Spark session, `--binary B --jobs JOBS.json` with a JSON list of
objects {"command": [...], "inputs": [...], "output": "...", "partitions": N, "format": F}.

Each input (a local path or any Hadoop URI: hdfs://, s3a://; text or CSV, `.gz` read
transparently) is split into partitions of whole lines. Each partition is piped through the
binary in filter mode (`--filter`: standard input to standard output, no header, exit code
about the run only) with one worker thread per Spark task core, and its rows come back with
the physical line numbers and file names a plain run gives. The script writes:

    OUT/rows.csv/      the rows as CSV (part files with a header each)
    OUT/rows.parquet/  the same rows as Parquet: `line` long, `micros` double, others string
    OUT/report/        the report one plain run with --report would write, merged from the
                       partitions' reports by `puzzlebench report merge`

A failed record is a row; a record over its budget (`--timeout`, `--max-nodes` in the
command) is a `timeout` row; a task whose binary exits non-zero or crashes fails, and Spark
retries it (it is never taken for an empty partition).

Limits: line inputs and CSV inputs whose quoted fields hold no line breaks (a partition
starts at any line); block inputs (battleship `--format blocks`) are not split. CSV inputs
go to commands that take `--format csv` (sudoku solve, connect4 validate).
"""

import argparse
import base64
import csv
import io
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
import time

from pyspark import SparkFiles, StorageLevel
from pyspark.sql import SparkSession
from pyspark.sql.types import DoubleType, LongType, StringType, StructField, StructType

REPORT_FILES = ("summary.json", "env.json", "latency.hdr")


def parse_args(argv):
    if "--jobs" in argv:
        parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
        parser.add_argument("--binary", required=True, help="the puzzlebench binary")
        parser.add_argument("--jobs", required=True, help="a JSON file listing the jobs")
        args = parser.parse_args(argv)
        with open(args.jobs) as handle:
            jobs = [argparse.Namespace(**{"partitions": 0, "format": "auto", **job})
                    for job in json.load(handle)]
        for job in jobs:
            check_command(parser, job.command)
        return args.binary, jobs
    if "--" not in argv:
        sys.exit("usage: puzzlebench_spark.py [options] INPUT... -- COMMAND [ARGS]")
    split = argv.index("--")
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("inputs", nargs="+", help="input files (paths or Hadoop URIs)")
    parser.add_argument("--output", required=True, help="output folder (path or URI)")
    parser.add_argument("--binary", required=True, help="the puzzlebench binary (local path)")
    parser.add_argument(
        "--partitions", type=int, default=0,
        help="partitions per input at least (default: Spark's minimum for the input)")
    parser.add_argument(
        "--format", choices=["auto", "lines", "csv"], default="auto",
        help="input format (default: CSV for .csv and .csv.gz, else lines)")
    args = parser.parse_args(argv[:split])
    args.command = argv[split + 1:]
    check_command(parser, args.command)
    return args.binary, [args]


def check_command(parser, command):
    if not command:
        parser.error("give the puzzlebench command after --, e.g. -- sudoku solve")
    for flag in ("--filter", "-o", "--output", "--resume", "--shard", "--report", "-j",
                 "--threads"):
        if flag in command:
            parser.error(f"{flag} is the script's to set; leave it out of the command")


def is_csv(path, forced):
    if forced != "auto":
        return forced == "csv"
    name = path.lower()
    return name.endswith(".csv") or name.endswith(".csv.gz")


def task_command(binary, command, csv_input, threads, report=None):
    line = [binary, *command, "--filter", "--threads", str(threads)]
    if csv_input:
        line += ["--format", "csv"]
    if report:
        line += ["--report", report]
    return line


def output_header(binary, command, csv_input, header_line):
    """The row columns the binary gives for this input: a plain run on the header alone."""
    line = [binary, *command, "--threads", "1", "-q"]
    if csv_input:
        line += ["--format", "csv"]
    text = (header_line + "\n") if csv_input else ""
    done = subprocess.run(line, input=text.encode(), capture_output=True, check=False)
    if done.returncode not in (0, 1):
        sys.exit(f"{' '.join(line)} failed: {done.stderr.decode(errors='replace').strip()}")
    return next(csv.reader(io.StringIO(done.stdout.decode())))


def schema_of(columns):
    types = {"line": LongType(), "micros": DoubleType()}
    return StructType([StructField(c, types.get(c, StringType()), True) for c in columns])


def run_partition(config):
    """The function each task runs over its partition of (line, index) pairs."""
    binary_name, command, threads, inputs = config

    def run(partition):
        first = next(partition, None)
        if first is None:
            return
        (file_index, _), _ = first
        name, csv_input, header_line, with_file = inputs[file_index]
        binary = SparkFiles.get(binary_name)
        # addFile does not always keep the executable bit.
        mode = os.stat(binary).st_mode
        if not mode & stat.S_IXUSR:
            os.chmod(binary, mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        report = tempfile.mkdtemp(prefix="puzzlebench-part-")
        env = dict(os.environ, RAYON_NUM_THREADS=str(threads))
        process = subprocess.Popen(
            task_command(binary, command, csv_input, threads, report),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        # Lines of the partition start at `start` (0-based index in the file); for CSV the
        # binary sees the header first, as line 1.
        state = {"start": None}
        errors = []

        def feed():
            try:
                if csv_input:
                    process.stdin.write(header_line.encode() + b"\n")
                for (_, text), index in _chain(first, partition):
                    if csv_input and index == 0:
                        continue  # the file's own header
                    if state["start"] is None:
                        state["start"] = index
                    process.stdin.write(text.encode() + b"\n")
                process.stdin.close()
            except BrokenPipeError:
                pass
            except Exception as error:  # reported with the task's failure below
                errors.append(error)
                process.kill()

        stderr_chunks = []
        writer = threading.Thread(target=feed, daemon=True)
        reader = threading.Thread(
            target=lambda: stderr_chunks.append(process.stderr.read()), daemon=True)
        writer.start()
        reader.start()
        # Rows stay text: the JVM parses them (spark.read.csv), far faster than Python.
        rows = process.stdout.read().decode("utf-8").split("\n")[:-1]
        writer.join()
        reader.join()
        code = process.wait()
        if code != 0 or errors:
            # Always checked: a crashed binary must fail the task (Spark retries it), never
            # pass for an empty partition.
            message = b"".join(stderr_chunks).decode(errors="replace").strip()[-2000:]
            shutil.rmtree(report, ignore_errors=True)
            raise RuntimeError(f"puzzlebench exited with {code} on a partition of {name}: "
                               f"{message or errors}")
        start = state["start"] or 0
        offset = start - 1 if csv_input else start
        prefix = csv_field(name) + "," if with_file else ""
        for row in rows:
            line, rest = row.split(",", 1)
            yield ("row", f"{prefix}{int(line) + offset},{rest}")
        part = {}
        for file_name in REPORT_FILES:
            with open(os.path.join(report, file_name), "rb") as handle:
                part[file_name] = base64.b64encode(handle.read()).decode()
        shutil.rmtree(report, ignore_errors=True)
        yield ("report", part)

    return run


def csv_field(text):
    """`text` as one CSV field, quoted as the binary quotes."""
    if any(c in text for c in ',"\r\n'):
        return '"' + text.replace('"', '""') + '"'
    return text


def _chain(first, rest):
    yield first
    yield from rest


def put(spark, local_dir, target):
    """Copies a local folder to `target`, a path or any Hadoop URI."""
    jvm = spark.sparkContext._jvm
    conf = spark.sparkContext._jsc.hadoopConfiguration()
    path = jvm.org.apache.hadoop.fs.Path(target)
    fs = path.getFileSystem(conf)
    fs.copyFromLocalFile(False, True, jvm.org.apache.hadoop.fs.Path(local_dir), path)


def main(argv):
    binary, jobs = parse_args(argv)
    binary = os.path.abspath(binary)
    spark = SparkSession.builder.appName("puzzlebench").getOrCreate()
    spark.sparkContext.addFile(binary)
    for job in jobs:
        run_job(spark, binary, job)
    spark.stop()


def run_job(spark, binary, args):
    """Runs one command over its inputs and writes its rows and report."""
    sc = spark.sparkContext
    started = time.monotonic()
    threads = int(sc.getConf().get("spark.task.cpus", "1"))
    with_file = len(args.inputs) > 1
    inputs, rdds, columns = [], [], None
    for file_index, path in enumerate(args.inputs):
        csv_input = is_csv(path, args.format)
        text = sc.textFile(path, minPartitions=args.partitions) if args.partitions else \
            sc.textFile(path)
        header_line = text.first() if csv_input else ""
        header = output_header(binary, args.command, csv_input, header_line)
        header = (["file"] if with_file else []) + header
        if columns is None:
            columns = header
        elif header != columns:
            sys.exit(f"{path}: its rows have columns {header}, the first input's {columns}")
        inputs.append((path, csv_input, header_line, with_file))
        rdds.append(text.map(lambda line, i=file_index: (i, line)).zipWithIndex())
    config = (os.path.basename(binary), args.command, threads, inputs)
    results = sc.union(rdds).mapPartitions(run_partition(config))
    results.persist(StorageLevel.MEMORY_AND_DISK)
    rows = results.filter(lambda r: r[0] == "row").map(lambda r: r[1])
    # FAILFAST: a row that does not parse fails the job instead of becoming nulls.
    frame = spark.read.schema(schema_of(columns)).option("escape", '"') \
        .option("mode", "FAILFAST").csv(rows)
    out = args.output.rstrip("/")
    # RFC 4180 quoting ("" inside quotes), as the binary writes, not Spark's backslash.
    frame.write.mode("overwrite").option("header", True).option("escape", '"') \
        .csv(out + "/rows.csv")
    frame.write.mode("overwrite").parquet(out + "/rows.parquet")
    parts = results.filter(lambda r: r[0] == "report").map(lambda r: r[1]).collect()
    scratch = tempfile.mkdtemp(prefix="puzzlebench-reports-")
    try:
        dirs = []
        for n, part in enumerate(parts):
            part_dir = os.path.join(scratch, f"part-{n:05d}")
            os.makedirs(part_dir)
            for file_name, data in part.items():
                with open(os.path.join(part_dir, file_name), "wb") as handle:
                    handle.write(base64.b64decode(data))
            dirs.append(part_dir)
        merged = os.path.join(scratch, "report")
        if dirs:
            subprocess.run([binary, "report", "merge", *dirs, "-o", merged], check=True)
        else:
            os.makedirs(merged)
        put(spark, merged, out + "/report")
        summary = json.load(open(os.path.join(merged, "summary.json"))) if dirs else {}
        print(json.dumps({"output": out, "partitions": len(parts),
                          "job_seconds": round(time.monotonic() - started, 3),
                          "records": summary.get("records", 0),
                          "statuses": summary.get("statuses", {})}))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        results.unpersist()


if __name__ == "__main__":
    main(sys.argv[1:])
