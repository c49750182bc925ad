"""One local Spark session for every Spark test of a pytest process.

tests/parity/test_spark.py and tests/monitor/test_monitor_spark.py run in the same
lane; a session each cost a second JVM start-up. The fixture is session-scoped and
imports PySpark only when a test asks for it (tests/conftest.py imports the fixture).
"""

from __future__ import annotations

import pytest

# The serial GC: a small heap on 2 cores. C1 only (-XX:TieredStopAtLevel=1): C2's
# compiler threads cost more CPU than their faster code saves in jobs this small. On an
# idle machine C2 compiles on the spare core, and the Spark tests ran faster with it
# (150 s against 199 s); in the test command both cores are busy, and the two Spark
# files took 138 s of JVM CPU with C1 only against 181 s with C2 (2026-12-03).
JAVA_OPTS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
# A CLI run in a subprocess: the same options.
CLI_JAVA_OPTS = JAVA_OPTS


@pytest.fixture(scope="session")
def spark():
    """A ``local[2]`` SparkSession with faircode's small local settings."""
    from pyspark.sql import SparkSession

    from faircode import spark as fspark

    builder = SparkSession.builder.master("local[2]").appName("faircode-tests")
    for key, value in fspark.LOCAL_CONF.items():
        builder = builder.config(key, value)
    session = builder.config("spark.driver.extraJavaOptions", JAVA_OPTS).getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
