"""What rankwise writes: files whole or not at all (:mod:`~rankwise.outputs.files`) and the
progress of long work on a terminal (:mod:`~rankwise.outputs.progress`)."""
