# Data mining: flow sizes of a data-mining cluster.
# Source paper: A. Greenberg et al., "VL2: A Scalable and Flexible Data Center Network",
# ACM SIGCOMM 2009. This is the form of it used by pFabric (M. Alizadeh et al., ACM SIGCOMM
# 2013) and CONGA (M. Alizadeh et al., ACM SIGCOMM 2014).
# Typed from github.com/datacenter/empirical-traffic-gen, file VL2_CDF, commit
# fd5fc71f71534d8cbba8a4c26d5c71474788ef0c (the same 13 points are in that repository's
# VL2_CDF.txt and in the NUMFabric release's VL2_CDF). That file gives the cumulative
# fraction (0 to 1): it is multiplied by 100 here, and its sizes 3.16e+06, 1e+08 and 1e+09
# are written out. Nothing else is changed.
# Not used: conweave-project/conweave-ns3 workloads/mining.txt, a different 7-point variant.
# Format: one point per line, SIZE_BYTES CUMULATIVE_PERCENT. Sizes and percents never
# decrease and the last percent is 100. Sizes between two points are linearly interpolated.
0 0
180 10
216 20
560 30
900 40
1100 50
1870 60
3160 70
10000 80
400000 90
3160000 95
100000000 98
1000000000 100
