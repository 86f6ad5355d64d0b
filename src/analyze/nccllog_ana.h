/* The log analysis's private header is analyze/logs/ana.h; this name stays
 * for the flight-recorder and Inspector analyses (nccllog_fr_ana.c,
 * nccllog_inspector_ana.c) until they move to analyze/logs/inputs/. */
#ifndef ND_ANALYZE_NCCLLOG_ANA_H
#define ND_ANALYZE_NCCLLOG_ANA_H
#include "analyze/logs/ana.h"
#endif
