"""toolcoach: report an agent's tool calls and give it the learned tool descriptions. Standard library only."""

from .langchain import HAS_LANGCHAIN, ToolcoachCallbackHandler, record_handled_errors
from .guard import ArgumentGuard, Verdict
from .guarded_tool import GuardRefusal, check_arguments
from .live import fetch_descriptions, load_tools
from .refresh import stop_refresh
from .redaction import redact_event, redact_secrets, redact_secrets_in_text
from .reporter import Reporter, configure, default_reporter

__version__ = "0.1.0"

__all__ = [
    "ArgumentGuard",
    "GuardRefusal",
    "HAS_LANGCHAIN",
    "Reporter",
    "Verdict",
    "check_arguments",
    "ToolcoachCallbackHandler",
    "configure",
    "default_reporter",
    "fetch_descriptions",
    "load_tools",
    "redact_event",
    "redact_secrets",
    "redact_secrets_in_text",
    "record_handled_errors",
    "stop_refresh",
]
