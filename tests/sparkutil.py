"""One local Spark session for every Spark test of a pytest process.

tests/parity/test_spark.py and tests/monitor/test_monitor_spark.py run in the same
lane; a session each cost a second JVM start-up. The fixture is session-scoped and
imports PySpark only when a test asks for it (tests/conftest.py imports the fixture).
"""

from __future__ import annotations

import pytest

# The serial GC: a small heap on 2 cores. Not C1-only (-XX:TieredStopAtLevel=1): it
# starts sooner, but the Spark tests ran 25% longer without C2 (199 s against 150 s).
JAVA_OPTS = "-XX:+UseSerialGC"
# A CLI run in a subprocess is short: there C1-only starts the JVM sooner.
CLI_JAVA_OPTS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"


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
