"""kafkactl: a command-line admin toolkit for Apache Kafka."""

__version__ = "0.1.0"

