package main

import (
	"flag"
	"os"
	"text/template"
)

var attributesType = flag.String("attributes-type", "tideAttributes", "ActivityAttributes type name")

// startTmpl renders the admin start body. #SITE start-template
const startTmpl = `{"aps": {
  "timestamp": {{.Now}},
  "event": "start",
  "attributes-type": "{{.AttributesType}}",
  "attributes": {"harbor": "{{.Harbor}}"},
  "content-state": {"level": {{.Level}}},
  "alert": {"title": "Tide alert", "body": "High tide soon"}
}}` // #END

func main() {
	flag.Parse()
	t := template.Must(template.New("start").Parse(startTmpl))
	_ = t.Execute(os.Stdout, map[string]any{"AttributesType": *attributesType})
}
