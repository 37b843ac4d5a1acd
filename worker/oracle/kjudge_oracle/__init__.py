"""kjudge's PyTorch oracle: a trusted process that runs a problem's PyTorch module (KernelBench's
form) on the judge's tensors, for expected outputs and for the eager / torch.compile baselines.

module_problem: how a reference.py and a problem.toml's [module] section become a callable.
See worker/oracle/README.md for the process and its protocol.
"""
