"""Reference models, data sets, the training loop, micro-benchmarks and the verify worker that runs them.

The worker side (worker, session, data, models, loop, sanity, bench) imports torch and runs under the target
interpreter. protocol, recipes and peaks are shared with the parent (the verify probe, gpudoctor.probes.verify) and
need only the standard library; this package imports nothing at the top.
"""
