// xab/model/model.h -- everything in the trace model library.
#pragma once

#include <xab/model/analysis.h>
#include <xab/model/barriers.h>
#include <xab/model/breakdown.h>
#include <xab/model/clock.h>
#include <xab/model/clock_quality.h>
#include <xab/model/compare.h>
#include <xab/model/compensate.h>
#include <xab/model/failures.h>
#include <xab/model/races.h>
#include <xab/model/format.h>
#include <xab/model/hang.h>
#include <xab/model/hang_text.h>
#include <xab/model/kinds.h>
#include <xab/model/messages.h>
#include <xab/model/mismatch.h>
#include <xab/model/mismatch_text.h>
#include <xab/model/progress.h>
#include <xab/model/reader.h>
#include <xab/model/samples.h>
#include <xab/model/source.h>
#include <xab/model/states.h>
#include <xab/model/time_base.h>
#include <xab/model/trace.h>
#include <xab/model/wait_states.h>
#include <xab/model/why_text.h>
