# Facebook Hadoop: flow sizes of a Hadoop cluster in Facebook's datacenters.
# Source paper: A. Roy et al., "Inside the Social Network's (Datacenter) Network",
# ACM SIGCOMM 2015.
# Typed from the copy distributed with HPCC (Y. Li et al., ACM SIGCOMM 2019):
# github.com/alibaba-edu/High-Precision-Congestion-Control, file
# traffic_gen/FbHdp_distribution.txt, commit 9cf8b9e8c8d04a3775e06c972c4699dcbce53c37.
# That file is already in bytes and percent: the points below are unchanged.
# Format: one point per line, SIZE_BYTES CUMULATIVE_PERCENT. Sizes and percents never
# decrease and the last percent is 100. Sizes between two points are linearly interpolated.
0 0
100 1
200 2
300 5
350 15
400 20
500 30
600 40
700 50
1000 60
2000 67
7000 70
30000 72
50000 82
80000 87
120000 90
300000 95
1000000 97.5
2000000 99
10000000 100
