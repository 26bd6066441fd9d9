"""report.json (the record), and its renderings. Reports read results; they compute no metric."""
