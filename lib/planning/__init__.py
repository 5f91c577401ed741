"""A paid run planned before it is paid: what each notebook of a run will ask of each model (`designs`),
how many tokens that is (`tokens`), what it costs and how long it takes, and what the cache already
holds (`plan`), and the budget cap that refuses or stops a run (`budget`). Nothing here calls a
model or contacts a server."""
