"""The verify probe: trains the reference models in worker processes on each GPU and the CPU, and reports facts.

``runner`` checks the options and runs the workers, ``launch`` runs one worker and reads its JSON-lines records,
``assemble`` turns the records into the verify facts, ``fetch`` downloads the data sets, and ``progress`` says
what a caller's view is shown.
"""
