"""Model backends: each turns requests into payloads and replies into Responses, nothing more."""
