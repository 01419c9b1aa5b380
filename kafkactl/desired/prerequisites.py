"""What Spark needs on this machine, found without starting it (nor importing pyspark): read by the engine
choice and by the Spark session alike, so that neither imports the other."""

from __future__ import annotations


def spark_missing() -> str | None:
    """What Spark would lack on this machine (pyspark, found without importing it, or Java), or None. Spark runs
    $JAVA_HOME/bin/java when JAVA_HOME is set (a wrong one is not made up for by PATH), else java from PATH."""
    import importlib.util
    import os
    import shutil

    if importlib.util.find_spec("pyspark") is None:
        return "pyspark is not installed (pip install 'kafkactl[spark]')"
    home = os.environ.get("JAVA_HOME")
    if home:
        java = os.path.join(home, "bin", "java")
        if not (os.path.isfile(java) and os.access(java, os.X_OK)):
            return f"Spark needs Java, and JAVA_HOME={home!r} has no bin/java"
    elif not shutil.which("java"):
        return "Spark needs Java, and none was found (no JAVA_HOME, no java on PATH)"
    return None


def url_shown(url: str) -> str:
    """A Spark master or Connect URL as a message may show it: without the user:password@ of a master, nor Spark
    Connect's ;token= and other parameters (an authentication token)."""
    import re

    from kafkactl.limits import shown

    masked = re.sub(r"(?<=//)[^/@]*@", "****@", url)
    masked = re.sub(r";.*", ";****", masked, flags=re.S)
    return shown(masked)
