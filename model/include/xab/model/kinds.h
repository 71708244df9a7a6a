// xab/model/kinds.h -- event kinds as the trace model knows them: the
// trace-format library's schema (xab/traceformat/schema.h), which is the
// rows of libab's table (xab/events.h) plus abmon's own records and
// "other" (an event name this reader does not know: forward compatible).
#pragma once

#include <xab/traceformat/schema.h>
