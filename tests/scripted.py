"""A real CachedModel over a tiny scripted backend, for unit tests of pure bookkeeping logic
(parsing, retries, counts). Everything else uses the real embedded models."""
from lib.llm import CachedModel, Response
from lib.specs import parse_spec


class ScriptedBackend:
    """Replies from reply(text, sample, request); records every request it is sent."""

    def __init__(self, reply, top_logprobs=None):
        self.reply, self.top_logprobs, self.requests = reply, top_logprobs, []

    def check(self):
        return None

    def generate(self, requests, on_result, bar):
        for j, r in enumerate(requests):
            self.requests.append(r)
            text = r.messages[-1]["content"] if r.messages else r.prompt
            lp = self.top_logprobs if (r.logprobs and self.top_logprobs) else None
            on_result(j, Response(text=self.reply(text, r.sample, r), top_logprobs=lp))
            bar.update(1)


_count = [0]


def scripted_model(reply, spec: str | None = None, top_logprobs=None) -> CachedModel:
    """A CachedModel whose backend is scripted (cache and request building are real); each gets its
    own chat-model name unless `spec` is given, so two scripts never share cached replies."""
    _count[0] += 1
    spec = spec or f"openai:scripted-{_count[0]}"
    return CachedModel(parse_spec(spec), backend=ScriptedBackend(reply, top_logprobs))
