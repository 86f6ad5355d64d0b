/* The sniffer table of the inputs of `logs` other than NCCL's text
 * (logs/inputs/inputs.h): the log reader consults it for every line and
 * calls no input by name. The flight recorder comes first: it keeps a
 * file's lines without claiming them, so the Inspector and ncclras readers
 * and the log reader see them too. The framework-error lines come last and
 * claim none (inputs/framework.h), and so do the stack frames after them
 * (inputs/frames.h). */
#include "analyze/logs/inputs/inputs.h"
#include "analyze/logs/inputs/flight_recorder.h"
#include "analyze/logs/inputs/framework.h"
#include "analyze/logs/inputs/frames.h"
#include "analyze/logs/inputs/inspector.h"

const struct nl_input nl_inputs[] = {
	{ "flight-recorder", nl_fr_detect, nl_fr_line, nl_fr_end_file, nl_fr_free },
	{ "inspector", nl_insp_detect, nl_insp_line, nl_insp_end_file, nl_insp_free },
	{ "ncclras", nl_ras_detect, nl_ras_line, nl_ras_end_file, NULL },
	{ "framework-errors", nl_fw_detect, nl_fw_line, nl_fw_end_file, nl_fw_free },
	{ "stack-frames", nl_frames_detect, nl_frames_line, nl_frames_end_file, nl_frames_free },
};

const size_t nl_ninputs = sizeof(nl_inputs) / sizeof(nl_inputs[0]);
