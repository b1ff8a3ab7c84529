# SGLang 0.5.17 (lmsysorg/sglang:v0.5.17-cu130, digest 16aba8925507e631e1dc1e23d95d026533602591775f6a8db68b74ee99746155)
# serving GLM-5.2 (NVFP4) — GB300 2x4: TP8 across trays + DP8 attention, no spec decode, maxreq 1024, DP-routed workload.
# 2 nodes x 4 GPUs (--nnodes 2). NVIDIA baseline flags verbatim.
# WORKLOAD REQUIREMENT: the benchmark client pins each conversation to one
# attention-DP rank (SGLang routed_dp_rank; agentperf sgl_conversation_dp_size: 8).
# Without that affinity the multi-turn workload thrashes the prefix cache across
# DP ranks and decode is prefill-starved to a fraction of these numbers.
python3 -m sglang.launch_server \
--config ifb_config.yaml \
--model-path nvidia/GLM-5.2-NVFP4 \
--served-model-name GLM-5.2 \
--host 0.0.0.0 --port 20800 \
--enable-cache-report
