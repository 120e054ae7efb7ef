module github.com/mcpi-dev/mcpi

go 1.26.8
