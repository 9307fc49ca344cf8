"""Training code for the Widderkopf environment (installed as ``widderkopf_env.train``)."""
