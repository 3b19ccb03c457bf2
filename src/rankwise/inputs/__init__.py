"""Reading the inputs: every accepted form into Polars (:mod:`~rankwise.inputs.read`,
:mod:`~rankwise.inputs.forms`, TREC text :mod:`~rankwise.inputs.trec`), each input's column
options (:mod:`~rankwise.inputs.columns`), the checks every engine shares
(:mod:`~rankwise.inputs.checks`), the faults of reading and of the engines
(:mod:`~rankwise.inputs.faults`) and gains from interaction events (:mod:`~rankwise.inputs.events`)."""
