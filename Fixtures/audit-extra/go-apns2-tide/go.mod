module example.com/tide-push

go 1.22

require github.com/sideshow/apns2 v0.23.0
