"""Anti-cheating layers: 1 static (libcst), 2 differential, 3 outlier/consistency."""
