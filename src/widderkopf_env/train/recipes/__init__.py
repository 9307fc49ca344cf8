"""The recipes (``widderkopf-train --recipe NAME``): what a recipe is (:mod:`.recipe`), its
run stage by stage (:mod:`.run`), its time budget (:mod:`.budget`) and the calibration
the budget sizes the stages from (:mod:`.calibration`); the command line: :mod:`.cli`."""
