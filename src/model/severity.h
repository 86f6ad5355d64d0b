/* Finding severities, shared by the finding catalog and the result model. */
#ifndef ND_MODEL_SEVERITY_H
#define ND_MODEL_SEVERITY_H
enum severity { SEV_INFO = 0, SEV_WARNING = 1, SEV_ERROR = 2 };
#endif
