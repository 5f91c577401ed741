"""What every study's simulation shares: the truth file and its planted parameters, the planted model's
probabilities and draws, the recognised task and reply token shapes, what the simulator knows about
the texts it is shown (roles), quadrature over the question effect, and a run's own cache. Imports
nothing else of lib.simulate."""
