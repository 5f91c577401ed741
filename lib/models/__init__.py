"""The model layer, one call surface for every model: `get_model(spec)` returns a `CachedModel`."""
from .cache import cache_stats, reset_stats  # noqa: F401
from .cached_model import CachedModel, LikelihoodUnavailable, get_model, user_request  # noqa: F401
from .specs import ModelSpec, SpecError, parse_spec, require_api_key  # noqa: F401
from .types import LogLik, OptionScores, Request, Response  # noqa: F401
