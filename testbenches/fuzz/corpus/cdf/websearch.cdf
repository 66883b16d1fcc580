# Web search: background flow sizes of a production web-search cluster.
# Source paper: M. Alizadeh et al., "Data Center TCP (DCTCP)", ACM SIGCOMM 2010.
# Typed from the copy distributed with HPCC (Y. Li et al., "HPCC: High Precision Congestion
# Control", ACM SIGCOMM 2019): github.com/alibaba-edu/High-Precision-Congestion-Control,
# file traffic_gen/WebSearch_distribution.txt, commit 9cf8b9e8c8d04a3775e06c972c4699dcbce53c37.
# That file is already in bytes and percent: the points below are unchanged.
# Format: one point per line, SIZE_BYTES CUMULATIVE_PERCENT. Sizes and percents never
# decrease and the last percent is 100. Sizes between two points are linearly interpolated.
0 0
10000 15
20000 20
30000 30
50000 40
80000 53
200000 60
1000000 70
2000000 80
5000000 90
10000000 97
30000000 100
