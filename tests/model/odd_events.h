#pragma once
// A timeline of odd events, one per line, each testing one rule of the plain form
// (plain_event_reader.h) or one member's types. Kept out of the test sources: moc does not
// read raw string literals that hold escaped quotes.
#include <string>

inline std::string oddEventsTrace()
{
    const char* const odd[] = {
        R"({"ph":"X","name":"a","pid":1,"tid":2,"ts":10,"dur":5})",
        " { \"ph\" :\t\"X\" ,\r\n \"name\" : \"b\" , \"pid\" : 1 , \"tid\" : 2 , \"ts\" : \"11.5\" , \"dur\" : 1e1 } ",
        R"({})",
        R"({ })",
        R"({"ph":"X","name":"","cat":"","pid":"12","tid":"abc","ts":"12","dur":"3.25"})",
        R"({"ph":"X","name":null,"cat":7,"pid":"","tid":1.5,"ts":13,"dur":1})",
        R"({"ph":"X","name":true,"pid":1e3,"tid":1e99,"ts":14,"dur":-1})",
        R"({"ph":"X","name":"c","pid":-5,"tid":true,"ts":null,"dur":false})",
        R"({"ph":"X","name":"d","pid":01,"tid":1.2.3,"ts":--5,"dur":1e})",
        R"({"ph":"X","name":"e","pid":1,"tid":1,"ts":12abc,"dur":1})",
        R"({"ph":"X","name":"f","pid":1,"tid":1,"ts":15,"dur":1,"args":{"a":1,"b":"x","c":null,"d":true,"e":-2.5e-3}})",
        R"({"ph":"X","name":"g","pid":1,"tid":1,"ts":16,"dur":1,"args":{"a":1,"b":2,"c":3},"args":{"z":"last"}})",
        R"({"ph":"X","name":"h","pid":1,"tid":1,"ts":17,"dur":1,"args":null})",
        R"({"ph":"X","name":"i","pid":1,"tid":1,"ts":18,"dur":1,"args":"text"})",
        R"({"ph":"X","name":"j","pid":1,"tid":1,"ts":19,"dur":1,"args":[1,2]})",
        R"({"ph":"X","name":"k","pid":1,"tid":1,"ts":20,"dur":1,"args":{}})",
        R"({"ph":"X","name":"l","pid":1,"tid":1,"ts":21,"dur":1,"args":{"o":{"p":[1,{"q":2}]},"r":[]}})",
        R"({"ph":"X","name":"m \"quoted\" \\ \/ \n \u00e9","pid":1,"tid":1,"ts":22,"dur":1,"args":{"k\"ey":"v\tal"}})",
        "{\"ph\":\"X\",\"name\":\"n \xC3\xA9\",\"pid\":1,\"tid\":1,\"ts\":23,\"dur\":1}",
        "{\"ph\":\"X\",\"name\":\"o \xFF\",\"pid\":1,\"tid\":1,\"ts\":24,\"dur\":1}",
        "{\"ph\":\"X\",\"name\":\"p \x01\",\"pid\":1,\"tid\":1,\"ts\":25,\"dur\":1}",
        R"({"ph":true,"name":"q","pid":1,"tid":1,"ts":26,"dur":1})",
        R"({"ph":"","name":"r","pid":1,"tid":1,"ts":27,"dur":1})",
        R"({"ph":"X","name":"s","pid":1,"tid":1,"ts":28,"dur":1,})",
        R"({"ph":"X","name":"t","pid":1,"tid":1,"ts":,"dur":1})",
        R"({"ph":"X","name":"u","pid":1,"tid":1,"ts":29 30,"dur":1})",
        R"({"ph":"X","name":"v","pid":1,"tid":1,"ts":31,"dur":1,"":5,"Ph":"B","names":"w","p":1,"t":2,"d":3,"i":4,"b":5,"f":6,"flow_inx":true})",
        R"({"ph":"X","name":"w","name":"w2","pid":"x","pid":7,"tid":1,"ts":32,"dur":1,"cat":"a","cat":"b"})",
        R"({"ph":"s","name":"flow","cat":"c","id":18446744073709551615,"pid":1,"tid":1,"ts":33,"bp":"e"})",
        R"({"ph":"f","name":"flow","cat":"c","id":"18446744073709551615","pid":1,"tid":2,"ts":34,"bp":"e"})",
        R"({"ph":"s","name":"flow2","cat":"c","id":"0x1f","pid":1,"tid":1,"ts":35})",
        R"({"ph":"f","name":"flow2","cat":"c","id":"0x1f","pid":1,"tid":2,"ts":36,"bp":5})",
        R"({"ph":"X","name":"x","pid":1,"tid":1,"ts":37,"dur":3,"bind_id":"0x20","flow_out":true})",
        R"({"ph":"X","name":"y","pid":1,"tid":2,"ts":38,"dur":3,"bind_id":32,"flow_in":1,"flow_out":"true"})",
        R"({"ph":"X","name":"z","pid":1,"tid":2,"ts":39,"dur":3,"bind_id":null,"flow_in":false,"id":true})",
        R"({"ph":"C","name":"ctr","pid":1,"tid":1,"ts":40,"args":{"v":1.5,"w":"2"}})",
        R"({"ph":"M","name":"thread_name","pid":1,"tid":2,"args":{"name":"worker"}})",
        R"({"ph":"i","name":"mark","pid":1,"tid":1,"ts":"41.000","s":"t"})",
        R"({"ph":"X","name":"aa","pid":1,"tid":1,"ts":" 42 ","dur":"1 "})",
        R"({"ph":"X","name":"bb","pid":1,"tid":1,"ts":43,"dur":1,"args":{"a":1,}})",
        R"({"ph":"X","name":"cc","pid":1,"tid":1,"ts":44,"dur":1,"args":{"a" 1}})",
        R"({"ph":"X","name":"dd","pid":1,"tid":1,"ts":45,"dur":1,"args":{"a":tru}})",
        R"({"ph":"X","name":"ee","pid":1,"tid":1,"ts":46,"dur":1,"x":{"y":1}})",
        R"({"ph":"X","name":"ff","pid":1,"tid":1,"ts":47,"dur":1,"x":+1})",
        R"({"ph":"X","name":"a long name of more than sixteen bytes, several times over, to cross the wide reads","pid":1,"tid":1,"ts":48,"dur":1})",
        R"(42)",
        R"("text")",
        R"([1,{"a":2}])",
    };
    std::string events = "[";
    for (const char* e : odd)
        events += std::string(e) + ",\n";
    events += R"({"ph":"X","name":"end","pid":1,"tid":1,"ts":100,"dur":1}])";
    return events;
}
