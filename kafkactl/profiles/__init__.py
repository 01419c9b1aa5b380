"""Connection profiles: kafka-*.sh style client properties (properties), the contexts file (store), and the
resolution of flags, environment and context into one Profile (resolve).

Precedence, per setting, like kubectl: command-line flags > environment > the selected context.
"""

from kafkactl.profiles.properties import (
                                          SASL_MECHANISMS,
                                          SECURITY_PROTOCOLS,
                                          JaasConfig,
                                          parse_jaas,
                                          parse_properties_text,
                                          read_properties_file,
                                          settings_from_properties,
)
from kafkactl.profiles.resolve import (
                                          DEFAULT_TIMEOUT,
                                          MAX_TIMEOUT_S,
                                          MIN_TIMEOUT_S,
                                          Profile,
                                          Selection,
                                          check_timeout,
                                          parse_bootstrap,
                                          resolve,
                                          selection_from_env,
                                          with_timeout,
)
from kafkactl.profiles.store import (
                                          Context,
                                          ContextRow,
                                          ContextStore,
                                          config_home,
                                          context_rows,
                                          contexts_path,
                                          validate_context_name,
)

__all__ = [
    "DEFAULT_TIMEOUT", "MAX_TIMEOUT_S", "MIN_TIMEOUT_S", "SASL_MECHANISMS", "SECURITY_PROTOCOLS", "Context",
    "ContextRow", "ContextStore", "JaasConfig", "Profile", "Selection", "check_timeout", "config_home",
    "context_rows", "contexts_path", "parse_bootstrap", "parse_jaas", "parse_properties_text",
    "read_properties_file", "resolve", "selection_from_env", "settings_from_properties", "validate_context_name",
    "with_timeout",
]
