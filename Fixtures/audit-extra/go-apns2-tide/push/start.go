package push

import "time"

func Start(harbor string) map[string]interface{} {
	return map[string]interface{}{ // #SITE start-map
		"aps": map[string]interface{}{
			"timestamp":       time.Now().Unix(),
			"event":           "start",
			"attributes-type": "TideAttributes",
			"attributes":      map[string]interface{}{"harbor": harbor},
			"content-state":   map[string]interface{}{"level": 1.2},
			"alert":           map[string]interface{}{"title": "Tide", "body": "Tracking " + harbor},
		},
	} // #END
}
