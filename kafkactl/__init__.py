"""kafkactl: a command-line admin toolkit for Apache Kafka."""

__version__ = "0.1.0"

import logging as _logging

# Library loggers stay silent unless --debug attaches a (secret-scrubbing) handler.
_logging.getLogger("kafkactl").addHandler(_logging.NullHandler())
