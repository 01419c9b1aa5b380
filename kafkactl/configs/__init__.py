"""Configs as kafka-configs.sh models them: entities, the --add-config syntax, describe/alter/list."""
