package push

import "time"

// #DECOY type declaration
type endAps struct {
	Event         string `json:"event"`
	Timestamp     int64  `json:"timestamp"`
	DismissalDate int64  `json:"dismissal-date"`
}

type endEnvelope struct {
	Aps endAps `json:"aps"`
}

func End() endEnvelope {
	now := time.Now().Unix()
	return endEnvelope{ // #SITE end-struct
		Aps: endAps{Event: "end", Timestamp: now, DismissalDate: now + 60},
	} // #END
}
