"""noiselearn: certified noise tables for differential privacy (tables, accountant, baselines, secure sampler).

The compiled core is noiselearn._noiselearn; its names are exported here, with the accountant objects of
noiselearn.accountants (PrivacyAccountant in dp_accounting's shape, CertifiedAccountant in Opacus')."""
from ._noiselearn import *  # noqa: F401,F403
from ._noiselearn import __doc__ as _core_doc  # noqa: F401
from .accountants import CertifiedAccountant, PrivacyAccountant, events_of  # noqa: F401
