"""The model layer, one call surface for every model: `get_model(spec)` returns a `CachedModel`
(lib/models/cached_model.py, the only cache loop); keys are made in cache_keys.py, spec strings are
parsed into ModelSpec / RewardSpec objects in specs.py (one grammar, options declared once), backends
live in backends/ (with the in-flight limit of server backends in backends/inflight.py), and the cost
ledger in ledger.py."""
from .cache import cache_stats, reset_stats  # noqa: F401
from .cached_model import CachedModel, CapabilityError, LikelihoodUnavailable, user_request  # noqa: F401
from .ledger import LEDGER, Ledger, cost_table  # noqa: F401
from .registry import embedding_model, get_model, reward_head_model  # noqa: F401
from .specs import ModelSpec, RewardSpec, SpecError, parse_reward_spec, parse_spec, require_api_key  # noqa: F401
from .types import LogLik, OptionScores, Request, Response, Score  # noqa: F401
