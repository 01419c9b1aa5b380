"""Principal mapping as the broker does it: SSL DNs and Kerberos names to Kafka principals."""
