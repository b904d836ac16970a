"""The verify probe: trains the reference models in worker processes on each GPU and the CPU, and reports facts.

``runner`` runs the workers and assembles their records into the verify facts, ``launch`` runs one worker and
reads its JSON-lines records, ``fetch`` downloads the data sets, ``progress`` says what the caller may show.
"""
