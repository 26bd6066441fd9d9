"""The suite as a whole: quality checks on its tasks and the hardware adaptation check."""
