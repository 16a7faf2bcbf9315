package push

import "testing"

func TestStart(t *testing.T) {
	want := map[string]interface{}{"aps": map[string]interface{}{"event": "start", "content-state": map[string]interface{}{}}} // #DECOY test
	_ = want
}
